"""Privacy models on an engine: the release's classes from its frequency set.

Every model of SPEC §2 is a function of the frequency set of (QIs, SAs): the classes are
the distinct QI tuples, their sizes and sensitive-value counts the sums of the counts,
and t-closeness's reference Q the counts of each sensitive value over the whole table
(SPEC §9). So the engine groups and counts (one ``GROUP BY``), and
:func:`privcore.classes.release_classes` and :func:`privcore.models.evaluate` run on the
frequency set with its counts as weights: the same verdicts and figures as on the table
in memory, whatever its size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from privcore.classes import release_classes
from privcore.data.hierarchy import Hierarchy
from privcore.engines.base import COUNT, Engine
from privcore.models import ModelReport, PrivacyModel, evaluate


def release_models(
    engine: Engine,
    table: Any,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[PrivacyModel] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> ModelReport:
    """Check ``models`` on the released table ``table`` (scanned by ``engine``) and
    measure every class, from the frequency set of its QIs and SAs. Rows whose QIs are
    all ``*`` are one class when they meet every model and suppressed otherwise, as
    :func:`~privcore.classes.release_classes` reads them."""
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    frequency_set = engine.frequency_set(table, [*qi, *sa])
    return frequency_set_models(frequency_set, qi, sa, models, hierarchies=hierarchies)


def frequency_set_models(
    frequency_set: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[PrivacyModel] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> ModelReport:
    """:func:`release_models` of a frequency set already computed (the QI and SA
    columns and ``count``, as :meth:`Engine.frequency_set` returns it)."""
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    weights = frequency_set[COUNT].to_numpy()
    frame = frequency_set.drop(columns=[COUNT])
    classes = release_classes(
        frame, qi, sa, models=list(models), hierarchies=hierarchies, weights=weights
    )
    return evaluate(classes, list(models), frame=frame)
