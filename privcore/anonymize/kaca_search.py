"""KACA's merge loop, compiled: the queue of violating classes, the nearest class, the merge.

Li, Wong, Fu & Pei 2006 (:mod:`privcore.anonymize.kaca`): take the smallest violating
class (ties: the lowest id) and merge it into the class at the least distance

    distance(a, b) = (|a| + |b|) · W − cost(a) − cost(b),   cost(c) = |c| · w(c),

(ties within a relative 10⁻⁹: the lowest id), W the summed WHD of the merged nodes and
w(c) that of c's own nodes. The tables are laid out by
:class:`~privcore.anonymize.kaca_classes.Classes`.

Pricing fewer classes, exactly: W is a sum over QI groups of the WHD of the common
ancestors, each term at least the class's own (a merge never lowers a node), so for
any one group — the key group — distance(a, b) ≥ |a| · (row_a[key of b] − row_a[key
of a]), row_a the key group's summed WHD of a's nodes with every joint node. The live
classes are kept sorted by their key (buckets of slots); a bucket whose bound exceeds
the least distance found so far, with the tie slack and a margin above any rounding,
holds neither the nearest class nor a tie and is not priced (:func:`_least`). Merged
classes whose key changed wait in unsorted slots, priced every step, until the next
sort; each sort takes as key group the one whose bound left the fewest classes on the
steps sampled since. On Adult (8 QIs in three groups, k = 5) a step prices about a
fifth of the classes.

Compiled with numba (``@njit(cache=True)``): :func:`merge_loop` and what it calls — the
pricing, the nearest class, the merge, the heap, the sort — and :func:`sort_classes`,
:func:`requeue` and :func:`class_rows`, which Python calls. A fresh installation
compiles them at the first KACA run (about 10 seconds, once) and keeps the machine
code on disk (numba's cache, ``__pycache__`` beside this module); a new process then
loads it in about half a second. Every floating-point operation is the one the
vectorized numpy search made, in the same order (no fast-math, so no fused
multiply-add); a merge's weights are summed as numpy sums them (:func:`numpy_sum`, its
pairwise summation), so distances, ties and releases are numpy's bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

TIE = 1e-9  # relative slack under which two distances count as equal
SAMPLE = 16  # every 16th step tallies the classes each QI group's bound would leave
ROW_SLOTS = 256  # rows of weights kept per QI group (direct-mapped by joint node)

# counters[...]: the loop's scalars, kept in one array shared with Python
SLOTS, ALIVE, VIOLATING_ROWS, MERGES, HEAP, LAST, SORTED, KEY = range(8)
# merge_loop's answers
DONE, PAUSED, CHECK, WHOLE_TABLE = range(4)
_ID_BITS = 32  # a queue entry is size << 32 | class id: smallest size, then lowest id
_ID_MASK = (1 << _ID_BITS) - 1


class State(NamedTuple):
    """The classes, one slot each, and the loop's state; filled by
    :class:`~privcore.anonymize.kaca_classes.Classes`. Slots ``[0, counters[SORTED])``
    are sorted by their key (their joint node in the key group ``counters[KEY]``),
    bucket x in slots ``start[x]`` to ``start[x + 1]``; the slots after them, to
    ``counters[SLOTS]``, hold the classes whose key changed since (dead slots stay until
    the next sort)."""

    counters: np.ndarray  # int64: SLOTS, ALIVE, VIOLATING_ROWS, MERGES, HEAP, LAST, SORTED, KEY
    ids: np.ndarray  # slot → class id
    pos_of: np.ndarray  # class id → slot
    alive: np.ndarray  # slot → alive
    size: np.ndarray  # slot → rows (int64)
    size_f: np.ndarray  # slot → rows (float64)
    cost: np.ndarray  # slot → |class| · Σ_QI WHD (−∞ once dead)
    node: np.ndarray  # (QI, slot) → node
    joint: np.ndarray  # (QI group, slot) → joint node
    start: np.ndarray  # key → its first slot (the sorted slots)
    count: np.ndarray  # (QI group, joint node) → live classes
    tally: np.ndarray  # QI group → classes its bound left, summed over sampled steps
    violating: np.ndarray  # class id → violates
    parent: np.ndarray  # class id → the class it merged into (itself while alive)
    heap: np.ndarray  # the violating classes, size << 32 | id
    head: np.ndarray  # class id → its first row (empty when sizes decide)
    tail: np.ndarray  # class id → its last row
    next_row: np.ndarray  # row → the next row of its class (−1: the last)
    dist: np.ndarray  # slot → W, then distance (scratch)
    near: np.ndarray  # the slots within reach of the least distance so far (scratch)


class Tables(NamedTuple):
    """The QIs' nodes: merge tables of the table QIs, labels of the level-compared QIs,
    and the QI groups priced together (:class:`~privcore.anonymize.kaca_classes.Classes`)."""

    radix: np.ndarray  # (group, QI): joint node = radix[g] @ nodes
    width: np.ndarray  # group → joint nodes
    group_qs: np.ndarray  # (group, member) → QI, in QI order
    group_len: np.ndarray  # group → members
    table_qs: np.ndarray  # table QIs, in order
    table_of: np.ndarray  # QI → its index among the table QIs
    t_n: np.ndarray  # table QI → nodes N
    t_off: np.ndarray  # table QI → offset of its N × N tables in the flat arrays
    merge_node: np.ndarray  # flat: offset + x · N + y → the common ancestor of x and y
    merge_weight: np.ndarray  # flat: offset + x · N + y → its WHD
    w_off: np.ndarray  # table QI → offset of its node weights
    node_weight: np.ndarray  # flat: offset + x → the WHD of node x
    level_qs: np.ndarray  # level-compared QIs, in order
    lv_off: np.ndarray  # level QI → offset of its nodes
    lv_labels: np.ndarray  # (offset + x, level) → the label of x's leaf at that level
    lv_level: np.ndarray  # offset + x → x's level
    lv_ancestor: np.ndarray  # (offset + x, level) → x's ancestor at that level
    lv_weight: np.ndarray  # (level QI, level) → WHD
    row_cache: np.ndarray  # (group, slot, joint) → kept rows of weights
    row_tag: np.ndarray  # (group, slot) → the joint node of the kept row (−1: none)
    weights: np.ndarray  # scratch: a merge's WHD per table QI
    margin: float  # slack of the lower bounds for rounding (see :func:`_least`)


@njit(cache=True)
def near_threshold(best: float) -> float:
    """The largest distance that ties with ``best`` (a relative 10⁻⁹)."""
    return best + TIE * max(1.0, abs(best))


@njit(cache=True)
def numpy_sum(values: np.ndarray, n: int) -> float:
    """The sum of ``values[:n]`` as numpy's ``add.reduce`` makes it (numpy's
    ``pairwise_sum``): blocks of at most 128 values (:func:`_block_sum`), a longer run
    split in two halves, the first a multiple of 8, summed apart and added — here with a
    stack instead of recursion."""
    lo = 0
    if n <= 128:
        return _block_sum(values, lo, n)
    todo_lo = np.empty(128, dtype=np.int64)  # runs to sum; a negative length: add two
    todo_n = np.empty(128, dtype=np.int64)
    sums = np.empty(64)
    todo_lo[0], todo_n[0], n_todo, n_sums = 0, n, 1, 0
    while n_todo:
        n_todo -= 1
        lo, m = todo_lo[n_todo], todo_n[n_todo]
        if m < 0:  # both halves summed: left + right
            sums[n_sums - 2] += sums[n_sums - 1]
            n_sums -= 1
        elif m <= 128:
            sums[n_sums] = _block_sum(values, lo, m)
            n_sums += 1
        else:
            half = m // 2
            half -= half % 8
            todo_lo[n_todo], todo_n[n_todo] = lo, -1
            todo_lo[n_todo + 1], todo_n[n_todo + 1] = lo + half, m - half
            todo_lo[n_todo + 2], todo_n[n_todo + 2] = lo, half  # the left half first
            n_todo += 3
    return sums[0]


@njit(cache=True)
def _block_sum(values, lo, n):
    """numpy's sum of at most 128 values: under 8 one after another; else eight running
    sums over strides of 8 combined pairwise, then the rest one by one."""
    if n < 8:
        total = -0.0
        for i in range(lo, lo + n):
            total += values[i]
        return total
    r = values[lo : lo + 8].copy()
    i = 8
    while i < n - n % 8:
        for t in range(8):
            r[t] += values[lo + i + t]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += values[lo + i]
        i += 1
    return total


# ---------------------------------------------------------------------- pricing


@njit(cache=True)
def group_row(g, i, node, joint, tb):
    """Make row ``joint[g, i]`` of QI group g current in ``tb.row_cache``: the summed
    WHD of the common ancestors of class ``i``'s nodes with every joint node — per
    member QI in order, ``row[r·N + y] = row[r] + merge_weight[x, y]`` from ``row =
    [0]`` (numpy's outer sums). Kept by joint node (direct-mapped)."""
    key = joint[g, i]
    slot = key % tb.row_cache.shape[1]
    if tb.row_tag[g, slot] == key:
        return
    row = tb.row_cache[g, slot]
    row[0] = 0.0
    length = 1
    for m in range(tb.group_len[g]):
        q = tb.group_qs[g, m]
        t = tb.table_of[q]
        n = tb.t_n[t]
        base = tb.t_off[t] + node[q, i] * n
        for r in range(length - 1, -1, -1):  # in place: row r's cells lie at or after r
            left = row[r]
            for y in range(n - 1, -1, -1):
                row[r * n + y] = left + tb.merge_weight[base + y]
        length *= n
    tb.row_tag[g, slot] = key


@njit(cache=True)
def _level_lca(k, x, y, lv_off, lv_labels, lv_level):
    """The level of the lowest common ancestor of nodes x and y of level-compared QI k:
    the highest of their levels and the number of levels where their labels differ."""
    a, b = lv_off[k] + x, lv_off[k] + y
    differ = 0
    for g in range(lv_labels.shape[1]):
        differ += lv_labels[a, g] != lv_labels[b, g]
    return max(lv_level[a], lv_level[b], differ)


@njit(cache=True)
def _least(i, st, tb):
    """Price class ``i`` against the classes that can be nearest: the least distance,
    with every slot within reach of the least distance found so far in ``st.near``
    (their count returned) and their distances in ``st.dist``.

    The distance to slot j: per group the row of i's joint node read at j's joint node,
    the groups summed in order, then the level-compared QIs: W; then (|a| + |b|) · W −
    cost(b) − cost(a) (a dead slot costs −∞: ∞).

    Exact pruning: W is at least the weight of a's own nodes in every group but the key
    group, so distance(a, b) ≥ |a| · (row[key of b] − row[key of a]) in the key group's
    row of a; a bucket whose bound exceeds the reach of the least distance so far (plus
    ``tb.margin``, more than the rounding of a distance) holds no nearest class nor a
    tie, and is skipped. First the bucket of a's own key and the unsorted slots, then
    the other buckets in key order, adjacent ones priced together."""
    counters, start, joint, node, dist, cache = (
        st.counters,
        st.start,
        st.joint,
        st.node,
        st.dist,
        tb.row_cache,
    )
    groups, k = joint.shape[0], counters[KEY]
    for g in range(groups):
        group_row(g, i, node, joint, tb)
    size_a, cost_a = st.size_f[i], st.cost[i]
    own = joint[k, i] if groups else 0
    width = tb.width[k] if groups else 1
    key_row = joint[k, i] % cache.shape[1] if groups else 0
    best, reach, n_near = np.inf, np.inf, 0
    x = -2  # -2: a's own bucket, -1: the unsorted slots, then the buckets in order
    while True:
        if x == -2:
            lo, hi, x = start[own], start[own + 1], -1
        elif x == -1:
            lo, hi, x = counters[SORTED], counters[SLOTS], 0
        else:
            lo = hi = -1
            while x < width:
                if x != own and start[x] != start[x + 1]:
                    if groups and size_a * (cache[k, key_row, x] - cache[k, key_row, own]) > (
                        reach + tb.margin
                    ):
                        x += 1
                        continue
                    if lo < 0:
                        lo = start[x]
                    elif start[x] != hi:
                        break  # not adjacent: priced next
                    hi = start[x + 1]
                x += 1
            if lo < 0:
                return best, n_near
        if groups:
            slot = joint[0, i] % cache.shape[1]
            for j in range(lo, hi):
                dist[j] = cache[0, slot, joint[0, j]]
            for g in range(1, groups):
                slot = joint[g, i] % cache.shape[1]
                for j in range(lo, hi):
                    dist[j] += cache[g, slot, joint[g, j]]
        else:
            dist[lo:hi] = 0.0
        for m in range(len(tb.level_qs)):  # many nodes: compare the labels level by level
            q = tb.level_qs[m]
            for j in range(lo, hi):
                level = _level_lca(m, node[q, i], node[q, j], tb.lv_off, tb.lv_labels, tb.lv_level)
                dist[j] += tb.lv_weight[m, level]
        for j in range(lo, hi):
            d = (st.size_f[j] + size_a) * dist[j]
            d -= st.cost[j]
            d -= cost_a
            dist[j] = d
            if d <= reach and j != i:
                st.near[n_near] = j
                n_near += 1
                if d < best:
                    best = d
                    reach = near_threshold(best)


@njit(cache=True)
def _nearest(i, st, tb):
    """The id of the class nearest to the class in slot ``i``: the least distance, ties
    (within a relative 10⁻⁹) the lowest id. Every ``SAMPLE``-th step also tallies what
    each QI group's bound would have left to price (:func:`_tally`)."""
    best, n_near = _least(i, st, tb)
    reach = near_threshold(best)
    if st.counters[MERGES] % SAMPLE == 0 and st.joint.shape[0] > 1:
        _tally(i, reach + tb.margin, st.size_f[i], st.joint, st.count, st.tally, tb)
    found = -1
    for t in range(n_near):
        c = st.ids[st.near[t]]
        if st.dist[st.near[t]] <= reach and (found < 0 or c < found):
            found = c
    return found


@njit(cache=True)
def _tally(i, reach, size_a, joint, count, tally, tb):
    """Add to ``tally`` for each QI group the live classes that its bound (see
    :func:`_least`) would leave to price for class ``i`` within ``reach``."""
    cache = tb.row_cache
    for g in range(joint.shape[0]):
        slot = joint[g, i] % cache.shape[1]
        own = cache[g, slot, joint[g, i]]
        for x in range(tb.width[g]):
            if count[g, x] and size_a * (cache[g, slot, x] - own) <= reach:
                tally[g] += count[g, x]


# ---------------------------------------------------------------------- merging


@njit(cache=True)
def _merge(a, b, st, tb):
    """Merge classes a and b (ids) into the lower id: per QI the lowest common ancestor,
    the new size and cost (the WHD of the table QIs summed as numpy sums them, then
    those of the level-compared QIs one by one); the other class dies. A sorted survivor
    whose key changed moves to a new unsorted slot. Returns the survivor's id."""
    counters, node, joint, count, weights = st.counters, st.node, st.joint, st.count, tb.weights
    keep, gone = (a, b) if a < b else (b, a)
    i, j = st.pos_of[keep], st.pos_of[gone]
    for t in range(len(tb.table_qs)):
        q = tb.table_qs[t]
        merged = tb.merge_node[tb.t_off[t] + node[q, i] * tb.t_n[t] + node[q, j]]
        node[q, i] = merged
        weights[t] = tb.node_weight[tb.w_off[t] + merged]
    weight = 0.0
    if len(tb.table_qs):
        weight += numpy_sum(weights, len(tb.table_qs))
    for k in range(len(tb.level_qs)):
        q = tb.level_qs[k]
        level = _level_lca(k, node[q, i], node[q, j], tb.lv_off, tb.lv_labels, tb.lv_level)
        node[q, i] = tb.lv_ancestor[tb.lv_off[k] + node[q, i], level]
        weight += tb.lv_weight[k, level]
    total = st.size[i] + st.size[j]
    st.size[i] = total
    st.size_f[i] = total
    st.cost[i] = total * weight
    st.cost[j] = -np.inf  # never the nearest: its distance is inf
    st.alive[j] = False
    counters[ALIVE] -= 1
    key = counters[KEY]
    old_key = joint[key, i] if joint.shape[0] else 0
    for g in range(joint.shape[0]):
        count[g, joint[g, j]] -= 1
        count[g, joint[g, i]] -= 1
        joint[g, i] = 0
        for q in range(node.shape[0]):
            joint[g, i] += tb.radix[g, q] * node[q, i]
        count[g, joint[g, i]] += 1
    if i < counters[SORTED] and joint.shape[0] and joint[key, i] != old_key:
        new = counters[SLOTS]  # to the unsorted slots; slot i dies
        counters[SLOTS] += 1
        st.ids[new], st.size[new], st.size_f[new], st.cost[new] = keep, total, total, st.cost[i]
        st.alive[new] = True
        _copy_column(node, i, new, node)
        _copy_column(joint, i, new, joint)
        st.pos_of[keep] = new
        st.cost[i] = -np.inf
        st.alive[i] = False
    unsorted = counters[SLOTS] - counters[SORTED]
    if unsorted * 16 > counters[ALIVE] or (counters[SLOTS] - counters[ALIVE]) * 8 > counters[ALIVE]:
        sort_classes(st, tb)
    return keep


@njit(cache=True)
def _copy_column(array, s, t, source):
    """``array[:, t] = source[:, s]``."""
    for q in range(array.shape[0]):
        array[q, t] = source[q, s]


@njit(cache=True)
def sort_classes(st, tb):
    """Sort the live classes by key, dropping the dead slots (a stable counting sort),
    the key group chosen afresh: the one whose bound left the fewest classes to price
    over the steps tallied since the last sort (before any: for the class first in the
    queue, when that entry is current)."""
    counters, start, joint, node = st.counters, st.start, st.joint, st.node
    if joint.shape[0] > 1:
        a, a_size = st.heap[0] & _ID_MASK, st.heap[0] >> _ID_BITS
        i = st.pos_of[a]
        if not st.tally.any() and counters[HEAP] and st.violating[a] and st.size[i] == a_size:
            best, _ = _least(i, st, tb)
            reach = near_threshold(best) + tb.margin
            _tally(i, reach, st.size_f[i], joint, st.count, st.tally, tb)
        if st.tally.any():
            counters[KEY] = np.argmin(st.tally)
        st.tally[:] = 0
    key = counters[KEY]
    n, alive = counters[SLOTS], counters[ALIVE]
    width = tb.width[key] if joint.shape[0] else 1
    start[: width + 1] = 0
    for s in range(n):
        if st.alive[s]:
            start[(joint[key, s] if joint.shape[0] else 0) + 1] += 1
    for x in range(width):
        start[x + 1] += start[x]
    fill = start[:width].copy()
    order = np.empty(alive, dtype=np.int64)
    for s in range(n):
        if st.alive[s]:
            x = joint[key, s] if joint.shape[0] else 0
            order[fill[x]] = s
            fill[x] += 1
    ids, size, size_f, cost = st.ids.copy(), st.size.copy(), st.size_f.copy(), st.cost.copy()
    old_node, old_joint = node.copy(), joint.copy()
    for t in range(alive):
        s = order[t]
        st.ids[t], st.size[t], st.size_f[t], st.cost[t] = ids[s], size[s], size_f[s], cost[s]
        _copy_column(node, s, t, old_node)
        _copy_column(joint, s, t, old_joint)
        st.alive[t] = True
        st.pos_of[ids[s]] = t
    counters[SLOTS] = counters[SORTED] = alive


@njit(cache=True)
def _push(heap, counters, key):
    k = counters[HEAP]
    counters[HEAP] = k + 1
    while k > 0:
        up = (k - 1) >> 1
        if heap[up] <= key:
            break
        heap[k] = heap[up]
        k = up
    heap[k] = key


@njit(cache=True)
def _pop(heap, counters):
    top = heap[0]
    n = counters[HEAP] - 1
    counters[HEAP] = n
    last = heap[n]
    k = 0
    while 2 * k + 1 < n:
        child = 2 * k + 1
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if last <= heap[child]:
            break
        heap[k] = heap[child]
        k = child
    heap[k] = last
    return top


@njit(cache=True)
def requeue(keep, violates, violating, size, pos_of, heap, counters):
    """Record whether the merged class ``keep`` violates; a violating one is queued with
    its new size."""
    violating[keep] = violates
    if violates:
        new_size = size[pos_of[keep]]
        counters[VIOLATING_ROWS] += new_size
        _push(heap, counters, (new_size << _ID_BITS) | keep)


@njit(cache=True)
def merge_loop(st, tb, limit, minimum, decide, max_merges):
    """Merge the smallest violating class into its nearest until the rows of violating
    classes number at most ``limit`` (or none violates): returns DONE; PAUSED after
    ``max_merges`` merges (progress, cancel); WHOLE_TABLE when the class to merge holds
    the whole table (its id in ``counters[LAST]``); CHECK when a merged class of at
    least ``minimum`` rows must be checked by the caller (``decide`` False: constraints
    beyond sizes) — its id in ``counters[LAST]``, answered by :func:`requeue`."""
    counters, violating, size, pos_of = st.counters, st.violating, st.size, st.pos_of
    done = 0
    while counters[HEAP] > 0 and counters[VIOLATING_ROWS] > limit:
        if done >= max_merges:
            return PAUSED
        entry = _pop(st.heap, counters)
        a, a_size = entry & _ID_MASK, entry >> _ID_BITS
        if not violating[a] or size[pos_of[a]] != a_size:
            continue  # stale entry: merged since, or re-queued with its new size
        if counters[ALIVE] == 1:
            counters[LAST] = a
            return WHOLE_TABLE
        b = _nearest(pos_of[a], st, tb)
        b_size = size[pos_of[b]]
        counters[VIOLATING_ROWS] -= a_size + (b_size if violating[b] else 0)
        keep = _merge(a, b, st, tb)
        gone = a + b - keep
        st.parent[gone] = keep
        violating[gone] = False
        counters[MERGES] += 1
        done += 1
        if len(st.next_row):  # rows kept: the survivor's, then the other's
            st.next_row[st.tail[keep]] = st.head[gone]
            st.tail[keep] = st.tail[gone]
        if a_size + b_size < minimum:
            requeue(keep, True, violating, size, pos_of, st.heap, counters)
        elif decide:
            violating[keep] = False
        else:
            counters[LAST] = keep
            return CHECK
    return DONE


@njit(cache=True)
def class_rows(c, pos_of, size, head, next_row):
    """The rows of class c, in the order of its merges (each class's rows in row order)."""
    out = np.empty(size[pos_of[c]], dtype=np.int64)
    row = head[c]
    for r in range(len(out)):
        out[r] = row
        row = next_row[row]
    return out
