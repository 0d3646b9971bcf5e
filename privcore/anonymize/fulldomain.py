"""Full-domain generalization: Datafly, Samarati, Incognito and the optimal search.

All four walk the same :class:`~privcore.anonymize.lattice.Lattice` and share its
cached, rolled-up node checks; they differ in which nodes they visit (SPEC §4). Each
returns a :class:`~privcore.anonymize.base.Release` whose ``lattice`` trace records the
walk for the teaching chart.

Every step reads the lattice's frequency sets, never the rows, so a table given as a
frequency set (``weights``: records per row, SPEC §9) gives the node, suppression,
losses and release of the expanded table: its bottom frequency set is the same.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from privcore.anonymize.base import (
    Problem,
    Progress,
    ProgressClock,
    Release,
    finish,
    report_progress,
)
from privcore.anonymize.lattice import MATRIX_NODES, Lattice
from privcore.anonymize.lattice_loss import check_metric
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import distinct as distinct_values
from privcore.data.codes import code_dtype
from privcore.errors import InfeasibleError


def _infeasible(problem: Problem, lattice: Lattice) -> InfeasibleError:
    top = lattice.evaluate(lattice.top)
    return InfeasibleError(
        "No generalization meets the constraints within the suppression limit: even "
        f"generalizing every quasi-identifier to '*' leaves {top.violating_rows} row(s) "
        f"violating, and at most {problem.budget} may be suppressed. Loosen the "
        "constraints or allow more suppression.",
        code="anonymize.infeasible",
        violating=top.violating_rows,
        budget=problem.budget,
    )


def _datafly_top(problem: Problem, lattice: Lattice) -> InfeasibleError:
    """Datafly's greedy path ended at the top unsatisfied. That proves nothing about the
    other nodes: with a suppression budget a less generalized node can still meet the
    constraints (generalizing merges a class that suppression would drop into one that
    then fails, e.g. recursive (c,l)-diversity), so the error says so and names the
    searches that look at every node, rather than "no generalization meets them"."""
    top = lattice.evaluate(lattice.top)
    return InfeasibleError(
        "Datafly's path (one level at a time on the quasi-identifier with the most "
        "distinct values) reached every quasi-identifier at '*' without meeting the "
        f"constraints: {top.violating_rows} row(s) still violate there, and at most "
        f"{problem.budget} may be suppressed. With suppression a less generalized node may "
        "still meet them: try Samarati, Incognito or the optimal search, which look at "
        "every node, or loosen the constraints.",
        code="anonymize.datafly_top",
        violating=top.violating_rows,
        budget=problem.budget,
    )


def _lattice_of(call: Call) -> tuple[Problem, Lattice]:
    """The prepared problem (every QI needs a hierarchy) and its lattice."""
    problem = call.prepare(need_hierarchies=True)
    return problem, Lattice(problem)


def _release(
    problem: Problem,
    lattice: Lattice,
    node: tuple[int, ...],
    *,
    algorithm: str,
    started: float,
    params: dict,
    tagged: np.ndarray | None = None,
    known: np.ndarray | None = None,
    losses: dict | None = None,
    notes: Sequence[str] = (),
    progress: Progress | None = None,
) -> Release:
    search_seconds = time.perf_counter() - started
    report_progress(progress, 0.9, "Generalizing and measuring the release")
    frame, suppressed = lattice.coded_release(node)
    trace = lattice.trace(node, tagged, losses, known=known)
    release = finish(
        problem,
        frame,
        suppressed,
        algorithm=algorithm,
        node=node,
        lattice=trace,
        params={**params, "evaluated_nodes": len(lattice.order), "lattice_size": lattice.size},
        started=started,
        search_seconds=search_seconds,
        record_levels={  # one level per row, in the smallest integer type
            c: np.full(problem.n_table_rows, node[q], dtype=code_dtype(node[q] + 1))
            for q, c in enumerate(problem.qi)
        },
        notes=notes,
        coded=problem.qi,  # measured as categoricals, then turned into text
    )
    report_progress(progress, 1.0, "Done")
    return release


# ---------------------------------------------------------------------------------- Datafly


@shared_signature
def datafly(call: Call) -> Release:
    """Datafly (Sweeney 1998; seed 004): generalize, one level at a time, the QI with the
    most distinct values in the current table, until the constraints hold or the rows
    still violating fit the suppression budget; then suppress those rows."""
    progress = call.progress
    started = time.perf_counter()
    problem, lattice = _lattice_of(call)
    node = list(lattice.bottom)
    steps = []
    while True:
        result = lattice.evaluate(tuple(node))
        report_progress(
            progress,
            min(0.85, sum(node) / max(sum(lattice.heights), 1)),
            f"Datafly: node {tuple(node)}, {result.violating_rows} rows violate",
        )
        if result.satisfied:
            break
        open_qis = [q for q in range(len(node)) if node[q] < lattice.heights[q]]
        if not open_qis:
            raise _datafly_top(problem, lattice)
        fs = result.frequencies
        distinct = [
            len(distinct_values(fs.labels[:, q])) if q in open_qis else -1 for q in range(len(node))
        ]
        choice = int(np.argmax(distinct))  # ties: the first QI in schema order
        steps.append({"qi": problem.qi[choice], "distinct": distinct[choice]})
        node[choice] += 1
    return _release(
        problem,
        lattice,
        tuple(node),
        algorithm="datafly",
        started=started,
        params={"steps": steps},
        progress=progress,
    )


# --------------------------------------------------------------------------------- Samarati


class _Tags:
    """What is known of each node's satisfaction, by evaluation or by monotonicity: a
    generalization of a satisfying node satisfies, a specialization of a failing node
    fails (seed 003 §20.3.1.1; Flash, Kohlmayer et al. 2012, uses the same two tags).
    Nodes are indexed as the rows of :attr:`Lattice.levels_matrix` (mixed radix, which
    is also the lexicographic order of the nodes)."""

    def __init__(self, lattice: Lattice, progress: Progress | None = None) -> None:
        self.lattice = lattice
        self.clock = ProgressClock(progress)
        self.levels = lattice.levels_matrix
        self.height = self.levels.sum(axis=1)
        self.known = np.zeros(len(self.levels), dtype=bool)
        self.value = np.zeros(len(self.levels), dtype=bool)
        # index step of one level up in each QI
        self.radix = [
            int(np.prod([h + 1 for h in lattice.heights[q + 1 :]], dtype=np.int64))
            for q in range(len(lattice.heights))
        ]

    def node(self, i: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.levels[i])

    def check(self, i: int) -> bool:
        """The node's satisfaction: from its tag, else evaluated and its tags spread."""
        if self.known[i]:
            return bool(self.value[i])
        node = self.node(i)
        ok = self.lattice.check(node).satisfied
        mask = self.lattice.successors_mask(node) if ok else self.lattice.predecessors_mask(node)
        fresh = mask & ~self.known
        self.value[fresh] = ok
        self.known[fresh] = True
        if self.clock.due():  # several times a second, so that a search can be cancelled
            self.clock.report(
                0.8 * float(self.known.mean()),
                f"Samarati: {len(self.lattice.order)} nodes evaluated, "
                f"{int(self.known.sum())} of {len(self.known)} known",
            )
        return ok

    def immediate_predecessors(self, i: int) -> list[int]:
        """The nodes one level lower in one QI (QI order)."""
        return [i - r for q, r in enumerate(self.radix) if self.levels[i, q] > 0]

    def resolve(self, i: int) -> bool:
        """The satisfaction of node ``i`` by a binary search for the first satisfying
        node on its path to the top (raising the lowest QI first, ties: the first QI; the
        top satisfies). The search tags around the highest failing node of the path,
        which covers far more nodes than ``i`` itself would."""
        if self.known[i]:
            return bool(self.value[i])
        path = [i]
        levels = [int(v) for v in self.levels[i]]
        heights = self.lattice.heights
        while levels != list(heights):
            q = min(
                (q for q in range(len(levels)) if levels[q] < heights[q]), key=levels.__getitem__
            )
            levels[q] += 1
            path.append(path[-1] + self.radix[q])
        lo, hi = 0, len(path) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.check(path[mid]):
                hi = mid
            else:
                lo = mid + 1
        return self.check(i)  # known now: path[lo] satisfies, path[lo − 1] fails


def _lowest_height_tagged(
    lattice: Lattice, progress: Progress | None
) -> tuple[int, list[tuple[int, ...]], _Tags]:
    """The lowest height holding a satisfying node and every satisfying node there,
    for a monotone lattice, evaluating few nodes.

    A satisfying node is found by a binary search along the path from the bottom to the
    top. Then, from its height h downwards, height h − 1 is searched for a satisfying
    node: first the immediate predecessors of the node that satisfied at h, then each
    node of h − 1 still unknown, resolved by :meth:`_Tags.resolve`. Tagged nodes are
    never evaluated, so a whole height is examined only where nothing satisfies (the
    lowest height's predecessor h* − 1, every node of which ends failing). Last, every
    node of h* still unknown is resolved: the satisfying ones are the candidates.
    The height and the candidates are those of Samarati's binary search on heights
    (seed 003): monotonicity makes "some node of height h satisfies" monotone in h.
    """
    tags = _Tags(lattice, progress)
    top = len(tags.levels) - 1
    if not tags.check(top):
        raise _infeasible(lattice.problem, lattice)
    tags.resolve(0)
    satisfying = np.flatnonzero(tags.known & tags.value)
    last = int(satisfying[np.argmin(tags.height[satisfying])])  # the first of the lowest
    height = int(tags.height[last])
    while height > 0:
        report_progress(
            progress,
            0.8 * float(tags.known.mean()),  # grows with what is known
            f"Samarati: looking for a node at height {height - 1}",
        )
        found = next((j for j in tags.immediate_predecessors(last) if tags.check(j)), None)
        lower = np.flatnonzero(tags.height == height - 1)
        while found is None:
            known_satisfying = lower[tags.known[lower] & tags.value[lower]]
            if len(known_satisfying):
                found = int(known_satisfying[0])
                break
            unknown = lower[~tags.known[lower]]
            if not len(unknown):
                break
            tags.resolve(int(unknown[0]))
        if found is None:
            break
        last, height = found, height - 1
    at = np.flatnonzero(tags.height == height)
    for i in at:
        tags.resolve(int(i))
    return height, [tags.node(int(i)) for i in at if tags.value[i]], tags


def _lowest_height_scanned(
    lattice: Lattice, progress: Progress | None
) -> tuple[int, list[tuple[int, ...]]]:
    """The lowest satisfying height and its satisfying nodes without tags: a binary
    search on heights (each height scanned until a node satisfies) when the lattice is
    monotone, else every height scanned upwards (a satisfying height says nothing about
    the next one)."""

    def satisfying_at(height: int, first_only: bool) -> list[tuple[int, ...]]:
        found = []
        for node in lattice.nodes_at(height):
            if lattice.check(node).satisfied:
                found.append(node)
                if first_only:
                    break
        return found

    problem = lattice.problem
    low, high = 0, sum(lattice.heights)
    if not lattice.monotone:
        low = next((h for h in range(high + 1) if satisfying_at(h, True)), None)
        if low is None:
            raise _infeasible(problem, lattice)
        high = low
    elif not satisfying_at(high, True):
        raise _infeasible(problem, lattice)
    searches = 0
    while low < high:
        mid = (low + high) // 2
        searches += 1
        report_progress(progress, min(0.8, searches / 8), f"Samarati: trying height {mid}")
        if satisfying_at(mid, True):
            high = mid
        else:
            low = mid + 1
    return low, satisfying_at(low, False)


_TIE_SLACK = 1e-9  # relative: a lower bound this far above the best loss rules a node out


@shared_signature
def samarati(call: Call, *, loss_metric: str = "ncp") -> Release:
    """Samarati (2001; seed 003): the lowest lattice height holding a node that
    satisfies the constraints within the suppression budget; among all satisfying nodes
    of that height (``params["candidates"]``, lexicographic order), the one with the
    least ``loss_metric`` (ties: the smallest node).

    On a monotone lattice the height is found with monotonicity tags
    (:func:`_lowest_height_tagged`); otherwise — or beyond the size a tag matrix may
    take — by scanning heights (:func:`_lowest_height_scanned`). A candidate's loss is
    computed unless its data-free lower bound (:meth:`Lattice.lower_bound`) already
    exceeds the best loss found: it could not be chosen.
    """
    progress = call.progress
    started = time.perf_counter()
    metric = check_metric(loss_metric)
    problem, lattice = _lattice_of(call)
    tags = None
    if lattice.monotone and lattice.size <= MATRIX_NODES:
        height, candidates, tags = _lowest_height_tagged(lattice, progress)
    else:
        height, candidates = _lowest_height_scanned(lattice, progress)
    bounds = {node: lattice.lower_bound(node, metric) for node in candidates}
    best, best_loss, losses = None, np.inf, {}
    for node in sorted(candidates, key=lambda n: (bounds[n], n)):
        if bounds[node] > best_loss + _TIE_SLACK * max(1.0, abs(best_loss)):
            break  # this and every later candidate lose
        loss = lattice.loss(node, metric)
        losses[node] = loss
        if best is None or (loss, node) < (best_loss, best):
            best, best_loss = node, loss
    return _release(
        problem,
        lattice,
        best,
        algorithm="samarati",
        started=started,
        params={
            "height": height,
            "loss_metric": metric,
            "candidates": [list(c) for c in candidates],
        },
        tagged=None if tags is None else tags.value,
        known=None if tags is None else tags.known,
        losses=losses,
        progress=progress,
    )


# -------------------------------------------------------------------------------- Incognito


def minimal_satisfying_nodes(lattice: Lattice, progress: Progress | None = None) -> list:
    """Incognito's search (LeFevre, DeWitt, Ramakrishnan 2005; seed 003).

    A-priori over QI subsets: for subsets of size 1, 2, … the nodes of each subset's
    lattice are checked bottom-up, a node whose generalizations of every smaller subset
    failed is skipped (subset property), and a satisfying node marks its
    generalizations as satisfying (generalization property). The full QI set's
    minimal satisfying nodes are returned. Checks on a subset use the frequency set of
    the full node that leaves the other QIs at their top level (rolled up). Both
    properties need monotone constraints (:attr:`Lattice.monotone`); otherwise the
    whole lattice is checked.

    A subset's lattice is an array of its levels (one axis per QI); a height is tagged
    at once from the one below, and its nodes left to check are checked in
    lexicographic order.
    """
    q = len(lattice.qi)
    dims = tuple(h + 1 for h in lattice.heights)
    if not lattice.monotone:
        # Subset and generalization pruning need monotonicity: check the whole lattice.
        return _minimal(classify(lattice, progress).reshape(dims))
    failed: dict[tuple[int, ...], np.ndarray] = {}  # per subset: its levels that fail
    total_subsets = 2**q - 1
    done = 0
    for size in range(1, q + 1):
        for subset in combinations(range(q), size):
            done += 1
            report_progress(
                progress,
                0.85 * done / total_subsets,
                f"Incognito: QI subset {done} of {total_subsets}",
            )
            failed[subset] = _subset_failing(lattice, subset, failed)
    return _minimal(~failed[tuple(range(q))])


def _subset_failing(
    lattice: Lattice, subset: tuple[int, ...], failed: dict[tuple[int, ...], np.ndarray]
) -> np.ndarray:
    """The levels of ``subset``'s lattice that fail, height by height: tagged
    satisfying when a node one level below in some QI satisfies (generalization
    property), failing when a projection on a smaller subset failed (subset property),
    else checked on the full node with the other QIs at their top level. Once every
    higher node generalizes a satisfying one, the rest is tagged at once."""
    dims = tuple(lattice.heights[i] + 1 for i in subset)
    pruned = np.zeros(dims, dtype=bool)
    for drop in range(len(subset) if len(subset) > 1 else 0):
        smaller = subset[:drop] + subset[drop + 1 :]
        pruned |= np.expand_dims(failed[smaller], drop)
    height = np.indices(dims).sum(axis=0)
    sat = np.zeros(dims, dtype=bool)
    fail = np.zeros(dims, dtype=bool)
    above = np.zeros(dims, dtype=bool)  # generalizations of satisfying nodes
    full = list(lattice.heights)
    for h in range(int(height.max()) + 1):
        here = height == h
        if (above | ~(height >= h)).all():
            sat |= height >= h
            break
        tagged = here & above
        sat |= tagged
        here &= ~tagged
        fail |= here & pruned
        for levels in np.argwhere(here & ~pruned).tolist():
            for i, level in zip(subset, levels, strict=True):
                full[i] = level
            if lattice.check(tuple(full)).satisfied:
                sat[tuple(levels)] = True
            else:
                fail[tuple(levels)] = True
        if sat.any():
            above = _generalizations(sat)
    return fail


def _generalizations(marked: np.ndarray) -> np.ndarray:
    """Per node, whether it is at least as general as a marked node in every QI."""
    out = marked
    for axis in range(marked.ndim):
        out = np.logical_or.accumulate(out, axis=axis)
    return out


def _minimal(satisfied: np.ndarray) -> list[tuple[int, ...]]:
    """The satisfying nodes none of whose immediate predecessors satisfies, by height
    then lexicographically (``satisfied``: one axis per QI)."""
    below = np.zeros_like(satisfied)  # a node one level lower in some QI satisfies
    for axis in range(satisfied.ndim):
        upper = [slice(None)] * satisfied.ndim
        lower = [slice(None)] * satisfied.ndim
        upper[axis], lower[axis] = slice(1, None), slice(None, -1)
        below[tuple(upper)] |= satisfied[tuple(lower)]
    nodes = [tuple(n) for n in np.argwhere(satisfied & ~below).tolist()]
    return sorted(nodes, key=lambda n: (sum(n), n))


@shared_signature
def incognito(call: Call, *, loss_metric: str = "ncp") -> Release:
    """Incognito: all minimal satisfying full-domain nodes (see
    :func:`minimal_satisfying_nodes`); the release uses the one with the least
    ``loss_metric``."""
    progress = call.progress
    started = time.perf_counter()
    metric = check_metric(loss_metric)
    problem, lattice = _lattice_of(call)
    minimal = minimal_satisfying_nodes(lattice, progress)
    if not minimal:
        raise _infeasible(problem, lattice)
    losses = {node: lattice.loss(node, metric) for node in minimal}
    best = min(minimal, key=lambda n: (losses[n], n))
    return _release(
        problem,
        lattice,
        best,
        algorithm="incognito",
        started=started,
        params={"loss_metric": metric, "minimal_nodes": [list(n) for n in minimal]},
        losses=losses,
        progress=progress,
    )


# ---------------------------------------------------------------------------------- optimal


def classify(lattice: Lattice, progress: Progress | None = None) -> np.ndarray:
    """Satisfaction of every node, evaluating few: binary search along paths.

    Repeatedly take the lowest unclassified node, climb a path from it to the top
    (raising the lowest QI first), binary-search the path for its first satisfying
    node, and tag: a satisfying node satisfies for all its generalizations, a failing
    node fails for all its specializations (monotonicity). Returns a bool per node in
    the order of :attr:`Lattice.levels_matrix` (Flash, Kohlmayer et al. 2012, uses the
    same two tags).
    """
    levels = lattice.levels_matrix
    if not lattice.monotone:
        # No tagging is sound: check every node.
        value = np.zeros(len(levels), dtype=bool)
        for i, row in enumerate(levels):
            value[i] = lattice.check(tuple(int(v) for v in row)).satisfied
            if i % 50 == 0:
                report_progress(
                    progress, 0.6 * i / len(levels), f"Checked {i} of {len(levels)} nodes"
                )
        return value
    known = np.zeros(len(levels), dtype=bool)
    value = np.zeros(len(levels), dtype=bool)
    heights = levels.sum(axis=1)

    def check(node: tuple[int, ...]) -> bool:
        i = lattice.index(node)
        if known[i]:
            return bool(value[i])
        ok = lattice.check(node).satisfied
        mask = lattice.successors_mask(node) if ok else lattice.predecessors_mask(node)
        fresh = mask & ~known
        value[fresh] = ok
        known[fresh] = True
        return ok

    top = lattice.top
    while not known.all():
        candidates = np.flatnonzero(~known)
        start = tuple(int(v) for v in levels[candidates[np.argmin(heights[candidates])]])
        path = [start]
        node = list(start)
        while tuple(node) != top:
            open_q = [i for i in range(len(node)) if node[i] < lattice.heights[i]]
            i = min(open_q, key=lambda j: (node[j], j))
            node[i] += 1
            path.append(tuple(node))
        lo, hi = 0, len(path) - 1
        if not check(path[hi]):
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if check(path[mid]):
                hi = mid
            else:
                lo = mid + 1
        check(path[lo])
        report_progress(
            progress, 0.6 * known.mean(), f"Classified {known.sum()} of {len(known)} nodes"
        )
    return value


@shared_signature
def optimal(call: Call, *, loss_metric: str = "ncp") -> Release:
    """The satisfying node of least ``loss_metric`` (ncp, whd, discernibility, ul).

    Branch and bound over the satisfying nodes (:func:`classify`): candidates in order
    of a lower bound — the generalization cost as if nothing were suppressed, which
    is monotone under generalization and never above the true loss — and a node is
    skipped once its bound reaches the best loss found. Exact for every metric.
    """
    progress = call.progress
    started = time.perf_counter()
    metric = check_metric(loss_metric)
    problem, lattice = _lattice_of(call)
    satisfied = classify(lattice, progress)
    if not satisfied.any():
        raise _infeasible(problem, lattice)
    levels = lattice.levels_matrix
    candidates = [tuple(int(v) for v in levels[i]) for i in np.flatnonzero(satisfied)]
    bound = np.array([lattice.lower_bound(n, metric) for n in candidates])
    order = np.lexsort((np.array([sum(n) for n in candidates]), bound))
    propagated = np.zeros(len(levels))
    best, best_loss, losses = None, np.inf, {}
    for rank, j in enumerate(order):
        node = candidates[j]
        i = lattice.index(node)
        if max(bound[j], propagated[i]) >= best_loss:
            continue
        loss = lattice.loss(node, metric)
        losses[node] = loss
        if loss < best_loss or (loss == best_loss and node < best):
            best, best_loss = node, loss
        no_sup = lattice.no_suppression_loss(node, metric)
        mask = lattice.successors_mask(node)
        propagated[mask] = np.maximum(propagated[mask], no_sup)
        if rank % 25 == 0:
            report_progress(progress, 0.6 + 0.3 * rank / len(order), f"Loss of {len(losses)} nodes")
    return _release(
        problem,
        lattice,
        best,
        algorithm="optimal",
        started=started,
        params={"loss_metric": metric, "loss": best_loss, "satisfying_nodes": int(satisfied.sum())},
        tagged=satisfied,
        losses=losses,
        progress=progress,
    )
