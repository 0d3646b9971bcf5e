"""How the rows of a release at ``*`` in every QI are read: a class, or suppressed.

Rows whose QIs are ALL ``*`` — the top-level group G — look the same in a file whether
an algorithm suppressed them or generalized them to the top of every hierarchy, and an
attacker cannot tell them apart. A release made here knows which: a suppressed row is a
row the method blanked in every QI (SPEC §13), whatever its rows would be as one class
— counted, left out of the classes and charged against the suppression limit — and a
row at ``*`` because its values were generalized to the top is a class. Every release
made here is read so (:func:`release_classes` with ``blanked``, the rows the algorithm
blanked: the anonymization report, and the measurement, report and attack pages of such
a release), and its count is the one figure of suppressed rows on every page.

A table read from a file does not say which rows were blanked. :func:`release_classes`
then reads G by one rule:

- G, taken as one equivalence class, satisfies every requested privacy model (k, l in
  its form, t in its distance): G is a real class (the lattice top) — counted in the
  classes, in k, l, t, C_avg and in discernibility as a class (|G|²); no row of G is
  suppressed;
- otherwise G is suppression (SPEC §2, as ARX): its rows get class -1, are excluded
  from the k/l/t checks, counted as suppressed, charged n each in discernibility, and
  count against the suppression limit;
- with no model requested (a plain measurement) nothing can fail, so G is a class.

Every model is checked on G with the table's own reference distribution Q (t-closeness),
so the decision depends on G and the table only, not on the other classes. The models'
declared capabilities decide the cheap cases without building a partition: G smaller
than the minimal class size a model implies fails it, and a model decided by size alone
(k-anonymity) needs nothing but |G|.
:func:`~privcore.classes.partition.equivalence_classes` keeps the older reading — every
all-``*`` row set aside as suppressed, or the blanked ones of a release made here — for
the attack simulators, which treat those rows as one group apart.

The functions here read a release so: :func:`release_classes` (its partition under the
models), :func:`top_rows` (G), :func:`suppressed_rows` and :func:`passes_as_one_class`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np
import pandas as pd

from privcore.classes.partition import (
    EquivalenceClasses,
    SensitiveAttribute,
    _is_suppressed,
    _prepared,
    checked_blanked,
    classes_from_codes,
)
from privcore.data.codes import SUPPRESSED, TableCodes
from privcore.data.hierarchy import Hierarchy


def top_rows(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    codes: TableCodes | None = None,
    classes: EquivalenceClasses | None = None,
) -> np.ndarray:
    """Boolean per row: every QI of the row is ``*`` (the group G of the module
    docstring, whether it turns out to be a class or suppression). ``codes``: the
    table's columns already factorized (:class:`TableCodes`); ``classes``: the table's
    equivalence classes over ``qi`` (:func:`release_classes`), from which G is read
    without going over the rows' values again — its rows are the suppressed ones, or
    the class whose representative row shows ``*`` in every QI."""
    if classes is None:
        _, factorized, _ = _prepared(frame, qi, (), None, codes)
        return _is_suppressed(factorized)
    top = classes.suppressed.copy()  # suppressed rows show '*' in every QI
    starred = np.ones(classes.n_classes, dtype=bool)  # per class: its QIs are all '*'
    for column in qi:
        cells = np.asarray(frame[column].iloc[classes.first_row], dtype=object)
        starred &= cells == SUPPRESSED
    at_top = np.flatnonzero(starred)
    if len(at_top):
        top |= classes.ids == at_top[0]
    return top


class ClassConstraint(Protocol):
    """What :func:`release_classes` needs of a privacy model (:mod:`privcore.models`):
    the per-class check and two declared capabilities — the fewest records a class
    needs to pass, and whether that size alone decides."""

    @property
    def minimal_class_size(self) -> int: ...

    @property
    def size_only(self) -> bool: ...

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray: ...


def one_class(
    rows: np.ndarray,
    *,
    qi: Sequence[str],
    sensitive: Mapping[str, SensitiveAttribute],
    weights: np.ndarray | None = None,
) -> EquivalenceClasses:
    """The rows ``rows`` (indices into the table) as a partition of one class.

    The sensitive attributes are regrouped to those rows and keep the table's
    distribution Q, so t-closeness measures the class against the whole table.
    ``weights`` (one per row of ``rows``) makes each row stand for that many records.
    """
    rows = np.asarray(rows, dtype=np.int64)
    size = len(rows) if weights is None else int(np.asarray(weights).sum())
    return EquivalenceClasses(
        ids=np.zeros(len(rows), dtype=np.int64),
        sizes=np.array([size], dtype=np.int64),
        first_row=np.zeros(1, dtype=np.int64),
        qi=tuple(qi),
        sensitive={
            name: attribute.regrouped(attribute.codes[rows], weights)
            for name, attribute in sensitive.items()
        },
        weights=weights,
    )


def passes_as_one_class(
    models: Sequence[ClassConstraint],
    rows: np.ndarray,
    *,
    qi: Sequence[str],
    sensitive: Mapping[str, SensitiveAttribute],
    weights: np.ndarray | None = None,
) -> bool:
    """Whether the rows ``rows``, taken as one equivalence class, meet every model
    (True when no model is given; False for no rows and a model to meet). A class below
    a model's minimal class size fails it and a size-only model passes on size, without
    building the one-class partition."""
    if not models:
        return True
    if len(rows) == 0:
        return False
    size = len(rows) if weights is None else int(np.asarray(weights).sum())
    if size < max(model.minimal_class_size for model in models):
        return False
    rest = [model for model in models if not model.size_only]  # the others pass by size
    if not rest:
        return True
    single = one_class(rows, qi=qi, sensitive=sensitive, weights=weights)
    return all(bool(model.class_pass(single)[0]) for model in rest)


def release_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute] = (),
    *,
    models: Sequence[ClassConstraint] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    codes: TableCodes | None = None,
    weights: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Equivalence classes of a released table, the rows whose QIs are all ``*`` read
    by the rule of this module's docstring.

    ``blanked`` (a boolean per row, or None): the rows the method that made the release
    blanked. Given, the suppressed rows are exactly the blanked rows whose QIs are all
    ``*`` (:func:`suppressed_rows`), and every other row — one generalized to the top
    included — is in a class. Without it (a table read from a file), G is read as
    follows.

    Those rows form one group G. G is a real class (the lattice top) when, taken as one
    equivalence class, it meets every model of ``models`` — always when ``models`` is
    empty; otherwise G is suppression: its rows get class id -1, are counted as
    suppressed and are left out of the model checks. Every other class is the set of
    rows with identical QI values (missing is one value). ``sensitive`` and
    ``hierarchies`` are as for :func:`equivalence_classes`; ``codes`` gives the table's
    columns already factorized (:class:`TableCodes`, shared with the other steps of a
    measurement). ``weights`` (whole numbers, one per row) make ``frame`` a frequency set:
    each row stands for that many records, in the class sizes, the sensitive values'
    counts and their distribution over the table.
    """
    qi, factorized, sensitive = _prepared(frame, qi, sensitive, hierarchies, codes)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.int64)
        # the same values, each row counted ``weight`` times, Q too
        sensitive = {n: replace(a, weights=weights) for n, a in sensitive.items()}
    top = _is_suppressed(factorized)
    suppressed = None
    if blanked is not None:
        suppressed = top & checked_blanked(blanked, len(top))
    elif top.any():
        rows = np.flatnonzero(top)
        if not passes_as_one_class(
            list(models),
            rows,
            qi=qi,
            sensitive=sensitive,
            weights=None if weights is None else weights[rows],
        ):
            suppressed = top
    return classes_from_codes(
        [c for c, _ in factorized],
        [len(u) for _, u in factorized],
        qi=qi,
        suppressed=suppressed,
        sensitive=sensitive,
        weights=weights,
    )


def suppressed_rows(
    frame: pd.DataFrame, qi: Sequence[str], blanked: np.ndarray | None = None
) -> np.ndarray:
    """The suppressed rows of a release (module docstring), as a boolean per row: the
    rows whose QIs are all ``*`` and, when ``blanked`` is given (the rows the method
    blanked), among them. Without ``blanked`` every row at ``*`` in every QI — the
    reading of the attack simulators, which cannot tell how a row came to be ``*``."""
    top = top_rows(frame, qi)
    return top if blanked is None else top & checked_blanked(blanked, len(top))
